// kgateway's own template: the GatewayParameters carrying a gateway proxy's HA settings, rendered by the
// engine's renderObject from gateway-parameters.yaml.hbs beside this module.
import { defineTemplate } from '../../core/templates.js';

export const GATEWAY_PARAMETERS_TEMPLATE = defineTemplate({
  name: 'gateway-parameters',
  path: 'products/kgateway/gateway-parameters.yaml.hbs',
  apiVersion: 'gateway.kgateway.dev/v1alpha1',
  kind: 'GatewayParameters',
  keys: ['spec'],
});
