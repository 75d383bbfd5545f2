// expect: ok
// timeout-ms: 20000
// output: done 200000
// not-output: unhandled rejection
// Rejections handled late are no longer kept: a long loop of them stays small.
let n = 0;
for (let i = 0; i < 200000; i++) {
  const p = Promise.reject(new Error('late ' + 'x'.repeat(100)));
  await null;
  await p.catch(() => { n++ });
}
return 'done ' + n
