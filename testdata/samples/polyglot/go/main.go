package main

import "fmt"

func area(w, h float64) float64 {
	return w * h
}

func main() {
	unused := 1
	fmt.Println(area(2, 3))
}
