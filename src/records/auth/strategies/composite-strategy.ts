import { absent, invalid, type Credentials, type Strategy, type StrategyVerdict } from './strategy.js';

/**
 * `type: composite`: its members tried in ascending `weight` (ties in listed order); the first that
 * authenticates wins, and its name is what the audit log records (`composite/member`). When none
 * does, the verdict is `invalid` if any member saw a credential of its kind, else `absent`.
 */
export class CompositeStrategy implements Strategy {
  readonly type = 'composite';

  constructor(
    readonly name: string,
    private readonly members: readonly Strategy[],
  ) {}

  authenticateAtOnce(credentials: Credentials): StrategyVerdict | undefined {
    let sawCredential = false;
    for (const member of this.members) {
      const verdict = member.authenticateAtOnce(credentials);
      if (verdict === undefined) return undefined;
      if (verdict.kind === 'authenticated') return this.named(verdict);
      if (verdict.kind === 'invalid') sawCredential = true;
    }
    return sawCredential ? invalid : absent;
  }

  async authenticate(credentials: Credentials): Promise<StrategyVerdict> {
    let sawCredential = false;
    for (const member of this.members) {
      const verdict = await member.authenticate(credentials);
      if (verdict.kind === 'authenticated') return this.named(verdict);
      if (verdict.kind === 'invalid') sawCredential = true;
    }
    return sawCredential ? invalid : absent;
  }

  private named(verdict: Extract<StrategyVerdict, { kind: 'authenticated' }>): StrategyVerdict {
    return { ...verdict, strategy: `${this.name}/${verdict.strategy}` };
  }
}
