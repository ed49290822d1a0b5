module example.com/polyglot

go 1.22
