package text

import (
	"fmt"
	"unicode/utf8"
)

// utf8Len counts the code points in s.
func utf8Len(s string) int {
	return utf8.RuneCountInString(s)
}

// Greet builds a multilingual greeting for name.
func Greet(name string) string {
	greeting := "héllo 世界 🎉 " + name
	return greeting
}

// Describe reports the width of a label next to a fixed banner.
func Describe(label string) string {
	width := utf8Len("naïve café 🙂 世界") + utf8Len(label)
	return fmt.Sprintf("%s (%d)", label, width)
}
