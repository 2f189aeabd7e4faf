package record

// LabelTasks are the turn label tasks, in report order.
var LabelTasks = []string{"norm", "intent", "emotion", "stage", "safety"}

// LabelSet is the closed set of labels of a task (nil: not a task).
func LabelSet(task string) []string {
	switch task {
	case "norm":
		return NormLabels
	case "intent":
		return Intents
	case "emotion":
		return Emotions
	case "stage":
		return Stages
	case "safety":
		return SafetyLabels
	}
	return nil
}

// Get is the label of a task ("" when l is nil or has none).
func (l *Labels) Get(task string) string {
	if l == nil {
		return ""
	}
	switch task {
	case "norm":
		return l.Norm
	case "intent":
		return l.Intent
	case "emotion":
		return l.Emotion
	case "stage":
		return l.Stage
	case "safety":
		return l.Safety
	}
	return ""
}

// Set sets the label of a task; it reports false for an unknown task.
func (l *Labels) Set(task, v string) bool {
	switch task {
	case "norm":
		l.Norm = v
	case "intent":
		l.Intent = v
	case "emotion":
		l.Emotion = v
	case "stage":
		l.Stage = v
	case "safety":
		l.Safety = v
	default:
		return false
	}
	return true
}
