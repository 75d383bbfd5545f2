(async function () {await null
})