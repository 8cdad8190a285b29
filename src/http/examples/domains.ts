// Request examples of the custom-domain operations (decision 0407): an application's and a
// container's domain, created and edited.
const shop = { domain: 'www.shop.example', generate_certificate: true, use_cdn: false };
const behindCdn = { domain: 'www.shop.example', generate_certificate: false, use_cdn: true };

export const domainExamples = Object.freeze({
  createApplicationCustomDomain: shop,
  editCustomDomain: behindCdn,
  createContainerCustomDomain: { ...shop, domain: 'api.shop.example' },
  editContainerCustomDomain: { ...behindCdn, domain: 'api.shop.example' },
});
