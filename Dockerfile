# syntax=docker/dockerfile:1
# partner-sim in a container: `docker build -t partner-sim . && docker run -p 4010:4010 partner-sim`
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts are skipped here because `prepare` builds, and the sources are not copied yet.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json openapi.yaml ./
COPY server ./server
COPY bench ./bench
COPY contracts ./contracts
COPY sdk-tests ./sdk-tests
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010 \
    PARTNER_SIM_DATA_DIR=/data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json openapi.yaml ./
COPY server/admin.openapi.yaml ./server/admin.openapi.yaml
COPY fixtures ./fixtures
# /app/reports: where `partner-sim contract` writes its reports by default (the rest stays read-only).
RUN mkdir -p /data /app/reports && chown node:node /data /app/reports
VOLUME ["/data"]
USER node
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4010)+'/__admin/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/server/cli.js"]
CMD ["serve"]
