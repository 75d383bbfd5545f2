// expect: ok
// timeout-ms: 2000
// output: done
const p = Promise.reject(new Error('late'));
await null;
p.catch(() => {});
return 'done'
