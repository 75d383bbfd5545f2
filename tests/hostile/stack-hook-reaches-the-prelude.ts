// expect: ok
// output: real, 0 frames
// A stack hook would receive every frame's function, the prelude's `start`
// (which settles the run) among them: `Error.prepareStackTrace` is fixed.
let fns: Function[] = [];
const hook = (e: Error, frames: { getFunction(): Function }[]) => {
  fns = frames.map((f) => f.getFunction());
  return '';
};
try { (Error as any).prepareStackTrace = hook; } catch {}
try { Object.assign(Error, Object.fromEntries([['prepare' + 'StackTrace', hook]])); } catch {}
new Error('x').stack;
const start = fns.find((f) => f && f.name === 'start') as any;
if (start) start(async () => 'forged');
await new Promise((r) => setTimeout(r, 10));
return `real, ${fns.length} frames`;
