(async function () {'use strict'; return typeof this
})