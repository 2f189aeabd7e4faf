package dialogue_test

import (
	"fmt"

	"github.com/ngkit/ngkit/pkg/dialogue"
)

func ExampleParse() {
	res := dialogue.Parse("Mike (smiling): Hi, Mrs. Thompson!\\nMrs. Thompson: Oh! Hello, Mike. (waves)\\n(They walk out together.)\\n[END]")
	for _, t := range res.Dialogues[0].Turns {
		fmt.Printf("%d %s | %s | %s\n", t.Index, t.Speaker, t.Action, t.Text)
	}
	fmt.Println(res.Dialogues[0].Narration)
	fmt.Println(res.Defects)
	// Output:
	// 0 Mike | smiling | Hi, Mrs. Thompson!
	// 1 Mrs. Thompson | waves | Oh! Hello, Mike.
	// [They walk out together.]
	// [end_marker literal_newline]
}

func ExampleRender() {
	d := dialogue.Parse("小王（低头）：对不起。\n王老师：没关系。").Dialogues[0]
	fmt.Print(dialogue.Render(d))
	// Output:
	// 小王: (低头) 对不起。
	// 王老师: 没关系。
}
