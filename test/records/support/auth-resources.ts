/** YAML of the strategies and bindings the auth tests declare. */
export function authResources(jwksUrl: string, options: { failOpen?: boolean } = {}): Record<string, string> {
  return {
    'auth-strategies.yaml': `
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: corp-jwt }
spec:
  type: jwt
  displayName: Corporate IdP
  jwt:
    jwksUrl: ${jwksUrl}
    issuers:
      - { issuer: "https://login.acme.test", audience: records }
      - { issuer: "https://partners.acme.test", audience: partner-records }
    claimMapping:
      actorId: sub
      roles:
        - { path: realm_access.roles, transform: prefix_strip, prefix: ROLE_ }
        - { path: groups, transform: split, separator: "," }
        - { path: app_role, transform: lowercase }
        - { path: none, transform: static_append, value: authenticated }
        - { path: dept_code, transform: lookup, table: auth_lookup.departments, keyColumn: code, valueColumn: role }
      attributes:
        department: { path: department, transform: uppercase }
        email: { path: email, transform: lowercase }
        tenant: { path: iss, transform: regex_extract, pattern: "^https://([a-z]+)\\\\.", group: 1 }
        tenure_days: { path: tenure_days }
        region_code: { path: region, transform: uppercase }
  revocation:
    failOpen: ${options.failOpen === true ? 'true' : 'false'}
---
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: partner-keys }
spec:
  type: api_key
  apiKey:
    headerName: X-Partner-Key
    ipAllowlist: [10.0.0.0/8, "2001:db8::/32"]
---
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: ops-keys }
spec:
  type: api_key
  apiKey: { headerName: X-API-Key }
---
apiVersion: weft.dev/v1
kind: AuthStrategy
metadata: { name: gateway }
spec:
  type: composite
  strategies:
    - { name: partner-keys, weight: 20 }
    - { name: corp-jwt, weight: 10 }
`,
    'role-bindings.yaml': `
apiVersion: weft.dev/v1
kind: RoleBinding
metadata: { name: carol-approver }
spec:
  actor: carol
  roles: [approver]
  scope: { region: EU, stores: [s1, s2] }
  attributes: { department: FINANCE, tenure_days: 400 }
---
apiVersion: weft.dev/v1
kind: RoleBinding
metadata: { name: dave-expired }
spec:
  actor: dave
  roles: [buyer]
  expiryDate: "2020-01-01T00:00:00Z"
---
apiVersion: weft.dev/v1
kind: RoleBinding
metadata: { name: erin-buyer }
spec:
  actor: erin
  roles: [buyer]
---
apiVersion: weft.dev/v1
kind: RoleBinding
metadata: { name: frank-buyer }
spec:
  actor: frank
  roles: [buyer]
---
apiVersion: weft.dev/v1
kind: RoleBinding
metadata: { name: root-admin }
spec:
  actor: root
  roles: [platform-admin, platform-auditor]
`,
  };
}
