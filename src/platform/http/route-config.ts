declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public route needs no credentials. Every other route requires authentication. */
    public?: boolean;
  }
}

/** Route options fragment marking a route as public. */
export const publicRoute = { config: { public: true } } as const;
