// expect: ok
// timeout-ms: 2000
// output: [warn] uncaught exception in a timer callback: Error: from the timer
setTimeout(() => { throw new Error('from the timer') }, 1);
await tools.sleep({ ms: 20 });
return 'done'
