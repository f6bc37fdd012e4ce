package cases

import "github.com/petstore/petstore/conformance/wire"

// The request value is exchange's: the generator varies it part by part, the session builds
// and sends it. These names keep the generator's code short.
type (
	Request = wire.Request
	Param   = wire.Param
	Header  = wire.Header
	Field   = wire.Field
	Body    = wire.Body
	Auth    = wire.Auth
	Place   = wire.Place
)

// Ways of presenting the key, and places to offer it (wire.Auth, wire.Place).
const (
	AuthKey          = wire.AuthKey
	AuthNone         = wire.AuthNone
	AuthEmpty        = wire.AuthEmpty
	AuthSchemeOnly   = wire.AuthSchemeOnly
	AuthOtherScheme  = wire.AuthOtherScheme
	AuthJunkAfter    = wire.AuthJunkAfter
	AuthWrongKey     = wire.AuthWrongKey
	AuthLowerScheme  = wire.AuthLowerScheme
	AuthDoubleSpace  = wire.AuthDoubleSpace
	AuthTwice        = wire.AuthTwice
	AuthWrongThenKey = wire.AuthWrongThenKey
	AuthOddToken     = wire.AuthOddToken
	AuthQuotedKey    = wire.AuthQuotedKey
	AuthKeyAlone     = wire.AuthKeyAlone

	InQuery  = wire.InQuery
	InCookie = wire.InCookie
	InHeader = wire.InHeader

	WrongKey = wire.WrongKey
)
