package edge

// ListChangedNotifications are the messages a host sends on each stream connection (stdio)
// after it has replaced the catalog of a server configured with Options.ListChanged: the
// SEP-2076 notifications/skills/list_changed and MCP's notifications/resources/list_changed
// (SPEC §5). They carry no params. Over HTTP a stateless server has no stream to send them
// on (GET is 405), so clients there learn of a change by asking again.
func ListChangedNotifications() [][]byte {
	return [][]byte{
		[]byte(`{"jsonrpc":"2.0","method":"notifications/skills/list_changed"}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`),
	}
}
