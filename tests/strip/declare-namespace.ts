declare namespace N { const x: number }
return 1