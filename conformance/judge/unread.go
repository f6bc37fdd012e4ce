package judge

import "context"

// UnreadBody is the size of a request body from which a server that refuses the request
// before reading the body (its key is rejected) may answer and close the connection while
// the client is still sending: the kernel then resets the connection and the answer is lost
// on the way. gunicorn and Node did so with a body of 40 KB, now and then; any body can meet
// it. RFC 9110 9.3 and 15 let a server answer without reading the content.
const UnreadBody = 1

type unreadKey struct{}

// MayAnswerUnread marks ctx's request as one a server may answer without reading its body:
// a rejected key is answered 401 whatever the body holds (section 5.3).
func MayAnswerUnread(ctx context.Context) context.Context {
	return context.WithValue(ctx, unreadKey{}, true)
}

// AnswersUnread reports whether ctx's request was marked by MayAnswerUnread.
func AnswersUnread(ctx context.Context) bool { return ctx.Value(unreadKey{}) != nil }

type elsewhereKey struct{}

// Elsewhere marks ctx's request as addressed to another resource than the operation its path
// routes to (another method, another host): a success is that resource's answer, which the
// operation's documented responses do not describe.
func Elsewhere(ctx context.Context) context.Context {
	return context.WithValue(ctx, elsewhereKey{}, true)
}

// IsElsewhere reports whether ctx's request was marked by Elsewhere.
func IsElsewhere(ctx context.Context) bool { return ctx.Value(elsewhereKey{}) != nil }
