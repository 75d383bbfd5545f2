(async function () {const v = await Promise.resolve(41)
return v + 1
})