# syntax=docker/dockerfile:1
# partner-sim in a container; see docs/docker.md.
#   docker build -t partner-sim . && docker run -p 4010:4010 partner-sim
# Node 24 is the current LTS; the exact tag keeps builds reproducible (bump it deliberately).
ARG NODE_IMAGE=node:24.21.0-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# Scripts are skipped: the sources are not copied yet, and nothing installed needs its own.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json openapi.yaml LICENSE ./
COPY server ./server
COPY bench ./bench
COPY contracts ./contracts
COPY fixtures ./fixtures
COPY docker ./docker
# The run-time layout, made by the same script .ci/image-smoke runs outside Docker.
RUN npm run build && docker/assemble-app.sh /src /app

FROM ${NODE_IMAGE}
ARG NODE_IMAGE
ARG VERSION=dev
LABEL org.opencontainers.image.title="partner-sim" \
      org.opencontainers.image.description="Simulator and contract-testing toolkit for the partner API" \
      org.opencontainers.image.licenses="MIT" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.base.name="docker.io/library/${NODE_IMAGE}"
# tini as PID 1: forwards SIGTERM/SIGINT to the simulator (which flushes its state before
# exiting) and reaps any orphaned child process.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini=0.19.0-* \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010 \
    PARTNER_SIM_DATA_DIR=/data
COPY --from=build /app ./
# /data: the state (uid 1000, the image's `node` user). /app/reports: where `partner-sim
# contract` writes its reports by default. Everything else stays read-only to that user.
RUN mkdir -p /data /app/reports && chown node:node /data /app/reports
VOLUME ["/data"]
USER node
EXPOSE 4010
# `partner-sim health` reads the same configuration as serve (PORT, PARTNER_SIM_HTTPS,
# PARTNER_SIM_HTTPS_ONLY, PARTNER_SIM_ADMIN_TOKEN, the data folder's CA) and asks the way the
# listener answers: plain HTTP, or TLS for --https-only. Its timeout is under Docker's.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s \
  CMD ["node", "dist/server/cli.js", "health", "--timeout", "2500"]
ENTRYPOINT ["/usr/bin/tini", "--", "node", "dist/server/cli.js"]
CMD ["serve"]
