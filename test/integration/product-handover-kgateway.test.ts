// The operator's handover of kgateway's leader Lease in every state a kubelet can report, on its real
// controller: the cases are in test/support/product-handover.ts, shared with the other product's file.
import { describeHandover } from '../support/product-handover.js';

describeHandover('kgateway');
