x
--> }); evil();