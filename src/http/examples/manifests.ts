// Request examples of the infrastructure-as-code operations (decision 0407, decision 0745): a
// berth.yaml applied at an organization (planned with ?dry_run=true) and at a project.
const document = `version: 1
project:
  name: shop
environments:
  staging:
    mode: STAGING
    variables: { LOG_LEVEL: info }
    secrets:
      STRIPE_KEY: { from: env:STRIPE_KEY }
    applications:
      web:
        git_repository: { url: https://github.com/acme/shop, branch: main }
        ports: [{ internal_port: 8080, publicly_accessible: true }]
    databases:
      db: { type: POSTGRESQL, mode: CONTAINER, version: "16" }
`;

export const manifestExamples = Object.freeze({
  applyOrganizationManifest: { document, file: 'infra/berth.yaml', secret_values: { STRIPE_KEY: 'sk_test_4eC39HqLyjWDarjtT1zdp7dc' } },
  applyProjectManifest: { document, file: 'infra/berth.yaml', prune: true, deploy: true },
});
