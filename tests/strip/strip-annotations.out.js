(async function () {const x         = 1; return x          
})