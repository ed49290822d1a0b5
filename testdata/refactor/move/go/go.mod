module example.com/moveshop

go 1.22
