// expect: ok
// timeout-ms: 2000
// output: cut �
console.log('cut \ud83c'); return 1
