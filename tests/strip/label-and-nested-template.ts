label: { break label }
return `${`${1}`}`