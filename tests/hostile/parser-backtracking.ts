// expect: syntax
// timeout-ms: 2000
// output: too many generic arrow functions
const f = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = <T2>( f = <T2>(GGGf = 
