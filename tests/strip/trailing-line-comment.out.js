(async function () {return 1 // done
})