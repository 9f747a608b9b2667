# syntax=docker/dockerfile:1
# glooha-operator image: built in three stages from a clean checkout (`docker build -t glooha-operator .`),
# run on the current Node.js LTS (26, Active LTS since 2026-10-28) as a non-root numeric user, with
# no npm, npx, corepack or build tools in the final image.
# CI has no Docker engine: `npm run check:image` builds this file unchanged with buildah, passing
# NODE_IMAGE=<an offline Debian trixie + Node.js 26 image> (scripts/image/base-image.sh), then runs the
# image against the test control plane; test/unit/chart/dockerfile.test.ts checks the recipe statically.

# The base of every stage. Releases use the default; override it only with an equivalent image.
ARG NODE_IMAGE=node:26-trixie-slim

# 1. All dependencies (dev included: TypeScript and esbuild), from the lockfile only, so this layer is
#    cached until it changes.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

# 2. Compile TypeScript (the type check), then bundle the operator into one file with what it uses of its
#    dependencies (scripts/bundle.mjs: esbuild, tree-shaken): /app/bundle/{dist,package.json}. The
#    process starts with ~55 MB less RSS than from node_modules (docs/scale.md, Memory).
FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/copy-assets.mjs scripts/bundle.mjs scripts/ascii-source.mjs ./scripts/
COPY src ./src
RUN npm run build
RUN node scripts/bundle.mjs /app/bundle

# 3. Runtime: node and the bundled operator, nothing else (no node_modules: the bundle holds them).
FROM ${NODE_IMAGE} AS runtime
# Drop the package managers the base image ships; the operator needs node alone.
RUN rm -rf /usr/local/lib/node_modules /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
      /usr/local/bin/yarn /usr/local/bin/yarnpkg /opt/yarn-*
ENV NODE_ENV=production
# Two glibc malloc arenas instead of 8 per core: V8's background threads (compiler, GC) each keep an
# arena of freed memory otherwise. 100 installs, idle after GC: arenas 22.6 -> 6.4 MB, RSS 128 -> 120 MB,
# the same CPU (docs/scale.md, "Node's flags in the image").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
# package.json carries "type": "module" (the bundle is ESM) and the version `--version` prints.
COPY --from=build --chown=0:0 /app/bundle/package.json ./package.json
COPY --from=build --chown=0:0 /app/bundle/dist ./dist
# Files belong to root and are read-only for the runtime user; it never writes to them.
USER 65532:65532
EXPOSE 8080
LABEL org.opencontainers.image.title="glooha-operator" \
      org.opencontainers.image.description="Kubernetes operator that makes Gloo and kgateway installs highly available" \
      org.opencontainers.image.source="https://github.com/glooha/glooha-operator" \
      org.opencontainers.image.licenses="Apache-2.0"
# --max-semi-space-size=4: a 4 MB young generation, where V8 grows it to 16 MB during the cold start and
# keeps those pages resident once the operator is idle. Idle RSS after GC, image's bundle: 10 installs
# 137 -> 120 MB, 100 installs 153-208 -> 131-139 MB, for no more CPU (docs/scale.md, "Node's flags in
# the image"). --expose-gc lets the idle operator return the heap pages a large cold start grew
# (src/process/memory-release.ts; 500 installs: 195 -> 165 MB idle). On the command line, not in
# NODE_OPTIONS, so a user's NODE_OPTIONS adds to them.
ENTRYPOINT ["node", "--max-semi-space-size=4", "--expose-gc", "dist/src/main.js"]
