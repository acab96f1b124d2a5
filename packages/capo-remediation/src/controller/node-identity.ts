// Before any write to a Node (cordon, drain, taint, uncordon): is it really the Machine's
// machine? A Node is found by NAME (Machine.status.nodeRef), and a name says nothing about
// which cluster or server it belongs to: a management cluster can hold a Node of the same
// name as a workload cluster's. Its spec.providerID must name the target server. Pure.
import * as E from 'fp-ts/lib/Either.js';
import { parseProviderID } from '@noderepair/openstack';

/** undefined when the Node's providerID names `serverId`, else why not (for a condition). */
export function nodeIdentityMismatch(
  node: { readonly name: string; readonly providerID: string | undefined },
  serverId: string,
  via: string,
): string | undefined {
  const where = `node ${node.name} in the ${via}`;
  if (node.providerID === undefined)
    return `${where} has no spec.providerID, so it cannot be matched to server ${serverId}; not touching it`;
  const p = parseProviderID(node.providerID);
  if (E.isLeft(p)) return `${where}: ${p.left}; not touching it`;
  if (p.right.serverId !== serverId.toLowerCase())
    return `${where} is server ${p.right.serverId} (spec.providerID ${node.providerID}), not the Machine's server ${serverId}; not touching it`;
  return undefined;
}
