// expect: timeout
// timeout-ms: 300
return ('b' + 'a'.repeat(2e6)).lastIndexOf('b' + 'a'.repeat(1e6) + 'c')
