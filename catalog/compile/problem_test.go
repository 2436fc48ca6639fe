package compile

import "testing"

func TestProblemGitHub(t *testing.T) {
	for _, tt := range []struct {
		p    Problem
		want string
	}{
		{Problem{Path: "skills/a/SKILL.md", Line: 2, Msg: `name "b": must equal the skill's directory name "a"`},
			`::error file=skills/a/SKILL.md,line=2,title=skilledge::name "b": must equal the skill's directory name "a"`},
		{Problem{Path: "skills/a/big.bin", Severity: Warning, Msg: "over 16 MiB"},
			"::warning file=skills/a/big.bin,title=skilledge::over 16 MiB"},
		{Problem{Path: "./skills//a/SKILL.md", Line: 1, Msg: "x"},
			"::error file=skills/a/SKILL.md,line=1,title=skilledge::x"},
		// Properties escape %, CR, LF, : and ,; the message %, CR and LF only.
		{Problem{Path: "skills/a,b:c%d\r\n::error file=x/SKILL.md", Line: 3, Msg: "100% bad,\r\n::error::injected: yes"},
			"::error file=skills/a%2Cb%3Ac%25d%0D%0A%3A%3Aerror file=x/SKILL.md,line=3,title=skilledge::100%25 bad,%0D%0A::error::injected: yes"},
		{Problem{Msg: "no file"}, "::error title=skilledge::no file"},
	} {
		if got := tt.p.GitHub(); got != tt.want {
			t.Errorf("GitHub(%+v)\n got %s\nwant %s", tt.p, got, tt.want)
		}
	}
}
