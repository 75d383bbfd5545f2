const a = 1

  namespace N { export const x = 1 }