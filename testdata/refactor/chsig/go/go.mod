module example.com/chsig

go 1.22
