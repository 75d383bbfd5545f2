(async function () {const f =     (x   )           => ({ a: x }); return f(1)
})