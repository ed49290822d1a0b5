package nvim

// Channel is nvbridge's RPC channel id in Neovim: Lua sends notifications
// to nvbridge with vim.rpcnotify(channel, method, ...).
func (s *Session) Channel() int { return s.channel }

// Handle registers fn for notifications (or requests) named method that
// Lua sends on Channel. Its parameters should be interface{} (or ...any):
// a notification whose arguments do not decode closes the connection
// (go-client). Notifications are delivered in order on one goroutine, so fn
// must return quickly.
func (s *Session) Handle(method string, fn any) error { return s.v.RegisterHandler(method, fn) }
