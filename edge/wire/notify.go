package wire

// ListChangedNotifications are the messages a host sends on each stream connection (stdio)
// after it has replaced the catalog of a server configured with opt (Options.ListChanged):
// the SEP-2076 notifications/skills/list_changed and MCP's
// notifications/resources/list_changed (PROTOCOL.md#live-catalogs), and
// notifications/prompts/list_changed and notifications/tools/list_changed when the
// fallbacks are on (the prompts are the skills, and load_skill's description names them).
// They carry no params. Over HTTP a stateless server has no stream to send them on (GET is
// 405), so clients there learn of a change by asking again.
func ListChangedNotifications(opt Options) [][]byte {
	out := [][]byte{
		[]byte(`{"jsonrpc":"2.0","method":"notifications/skills/list_changed"}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/resources/list_changed"}`),
	}
	if opt.Prompts {
		out = append(out, []byte(`{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}`))
	}
	if opt.Tools {
		out = append(out, []byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`))
	}
	return out
}
