(async function () {;                                       
                      
function first   (pair         )    { return pair[0] }
const rows        = [{ id: 'a', n: 2 }];
let total         ;
total = rows.reduce((sum        , row     )         => sum + (row.n ?? 0), 0);
         class Base {                    }
return [first        (['x', 'y']), total , rows[0] .id                 ]
})