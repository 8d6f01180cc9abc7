# syntax=docker/dockerfile:1
# One image for every role: `api` (the default), `worker`, `start`, `migrate`, `keys`.
# The TypeScript sources run as they are under tsx, a runtime dependency, so
# there is no compile step and the runtime needs no dev dependencies.

ARG NODE_IMAGE=node:22-bookworm-slim

# Production dependencies only, from the lockfile. A stage of its own so the
# layer is rebuilt only when package.json or the lockfile change.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    WORKER_HEALTH_PORT=3001
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY migrations ./migrations
COPY prompts ./prompts
COPY src ./src
# The web viewer at /app/, built and committed (web/build.mjs): the image needs no front-end toolchain.
COPY web/dist ./web/dist
# Root owns the code; the process runs as the image's unprivileged `node` user and cannot change it.
USER node
EXPOSE 3000 3001
# node directly, not `npm run`: SIGTERM reaches the process, which drains streams and hands jobs back.
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["src/main/api.ts"]
