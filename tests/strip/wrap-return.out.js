(async function () {return 1
})