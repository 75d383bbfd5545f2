// expect: ok
// timeout-ms: 1000
// output: x
// output: unhandled rejection: n
Promise.reject({ get name() { console.log('x'); return 'n' } }); return 1
