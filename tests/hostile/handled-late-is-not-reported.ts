// expect: ok
// timeout-ms: 2000
// output: done
// not-output: unhandled rejection
const p = Promise.reject(new Error('late'));
await null;
p.catch(() => {});
return 'done'
