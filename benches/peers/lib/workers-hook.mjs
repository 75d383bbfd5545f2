// A module-resolution hook for @cloudflare/codemode's main entry: Node has
// no `cloudflare:workers`, so it resolves to a stub (only the classes the
// entry extends; W5 calls none of them).
export async function resolve(specifier, context, next) {
  if (specifier === 'cloudflare:workers') {
    return { url: 'data:text/javascript,export class DurableObject {} export class RpcTarget {} export class WorkerEntrypoint {}', shortCircuit: true };
  }
  return next(specifier, context);
}
