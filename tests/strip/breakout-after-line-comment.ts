// }
}); evil(); (function(){