declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public route needs no credentials. Every other route requires authentication. */
    public?: boolean;
    /**
     * The handler stores numbers a 64-bit float cannot hold exactly (it reads them with
     * `inexactNumbersOf`); every other route refuses them with 400.
     */
    exactNumbers?: boolean;
  }
}

/** Route options fragment marking a route as public. */
export const publicRoute = { config: { public: true } } as const;
