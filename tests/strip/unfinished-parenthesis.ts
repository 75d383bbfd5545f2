const a = 1;
return (a +