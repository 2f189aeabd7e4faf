package dialogue

import "github.com/ngkit/ngkit/pkg/dialogue/internal/lex"

// decideRoles decides, for each "Name (x):", whether x is a role (kept in
// the speaker name) or a stage direction (put first in the action): a role
// when a line of that name and x also has a direction after the colon, or
// when x is the same on all of at least two lines of that name.
func (a *assembler) decideRoles() {
	any := false
	for _, h := range a.tparen {
		if h.has {
			any = true
			break
		}
	}
	if any {
		for i := range a.turns {
			h := a.tparen[i]
			if !h.has {
				continue
			}
			role, n, bare, many := false, 0, false, false
			for j := range a.turns {
				g := a.tparen[j]
				if a.turns[j].Speaker != a.turns[i].Speaker {
					continue
				}
				if !g.has {
					bare = true
					continue
				}
				if g.paren != h.paren {
					many = true
					continue
				}
				n++
				if a.turns[j].Action != "" {
					role = true
				}
			}
			if role || (n >= 2 && !bare && !many) {
				a.tparen[i].full, a.tparen[i].role = h.full, true
			}
		}
		for i := range a.turns {
			h := a.tparen[i]
			switch {
			case !h.has:
			case h.role:
				a.turns[i].Speaker = h.full
			case lex.EndWord(h.paren):
				a.p.bits |= dEndMarker
				a.p.removed(h.paren)
			case a.turns[i].Action == "":
				a.turns[i].Action = h.paren
			default:
				a.turns[i].Action = h.paren + "; " + a.turns[i].Action
			}
		}
	}
	for i := range a.turns {
		a.turns[i].Action = noEscapes(a.turns[i].Action)
		a.names = append(a.names, baseName(a.turns[i].Speaker))
	}
}

func leadsWithDir(s string) bool {
	return s != "" && lex.OpenAt(s, 0) > 0 && lex.MatchParen(s, 0) > 0
}
