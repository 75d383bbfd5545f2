// expect: ok
// timeout-ms: 2000
// output: Release notes �
return 'Release notes \u{1f389} for v2'.slice(0, 15)
