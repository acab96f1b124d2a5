// Patch semantics SimKube applies, pure: RFC 7386 merge patch (null deletes a key, objects
// merge, arrays replace), and the one strategic-merge rule the controller relies on: a
// status.conditions list merges by `type` (the NodeRepairHeld condition is patched that way).

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** RFC 7386: the patch merged into the target (neither is modified). */
export function mergePatch(target: Obj, patch: Obj, strategic = false, path = ''): Obj {
  const out: Obj = { ...target };
  for (const [k, v] of Object.entries(patch)) {
    const here = `${path}/${k}`;
    if (v === null) delete out[k];
    else if (strategic && here === '/status/conditions' && Array.isArray(v))
      out[k] = mergeByType(Array.isArray(out[k]) ? (out[k] as Obj[]) : [], v as Obj[]);
    else if (isObj(v)) out[k] = mergePatch(isObj(out[k]) ? out[k] : {}, v, strategic, here);
    else out[k] = structuredClone(v);
  }
  return out;
}

/** Strategic merge of a list keyed by `type`: items of the patch replace or join the list. */
function mergeByType(list: Obj[], patch: Obj[]): Obj[] {
  const out = list.map((c) => ({ ...c }));
  for (const p of patch) {
    const i = out.findIndex((c) => c['type'] === p['type']);
    if (i < 0) out.push({ ...p });
    else out[i] = { ...out[i], ...p };
  }
  return out;
}
