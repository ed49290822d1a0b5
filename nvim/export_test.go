package nvim

// What the tests in nvim_test see of the package's insides.

var SpliceLines = spliceLines

// TextCacheCounts: the snapshots of large buffers made from a cached text
// and Neovim's line changes, and those read whole.
func TextCacheCounts(s *Session) (spliced, fetched int64) {
	c := textCacheOf(s)
	return c.spliced.Load(), c.fetched.Load()
}
