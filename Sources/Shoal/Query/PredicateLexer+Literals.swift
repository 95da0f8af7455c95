import Foundation

/// Literal forms, as Realm's query language writes them:
///
/// - integers `42`, `-7`, `+3`, `0x1F`; floats `1.5`, `.5`, `1e-3`, `2.5f`
///   (the `f` suffix makes a `Float`); signed `-inf`, `+nan` (unsigned `inf`
///   and `nan` are keywords);
/// - strings in `"…"` or `'…'` with the escapes `\"` `\'` `\\` `\/` `\b`
///   `\f` `\n` `\r` `\t` `\0` and `\uXXXX` (surrogate pairs combine);
/// - dates `T<seconds>:<nanoseconds>` since 1970 and
///   `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (or with `T` for `@`), in UTC;
/// - `uuid(…)`, `oid(…)` and `B64"…"`.
extension PredicateLexer {
    // MARK: Numbers

    /// Whether a `+` or `-` at the current position starts a number (`-3`,
    /// `-.5`, `-inf`) rather than standing alone.
    func startsSignedNumber() -> Bool {
        guard let next = peek(1) else { return false }
        if next.isDigit { return true }
        if next == ".", let after = peek(2), after.isDigit { return true }
        return signedSpecialWord(at: position + 1) != nil
    }

    /// `inf`, `infinity` or `nan` (any case) as a whole word at `index`, and its value.
    private func signedSpecialWord(at index: Int) -> (length: Int, value: Double)? {
        var end = index
        while end < scalars.count, scalars[end].isWordContinue { end += 1 }
        switch text(index..<end).lowercased() {
        case "inf", "infinity": return (end - index, .infinity)
        case "nan": return (end - index, .nan)
        default: return nil
        }
    }

    mutating func lexNumber() throws(PredicateFormatError) -> PredicateToken {
        let start = position
        var sign = ""
        if let c = peek(), c == "+" || c == "-" {
            sign = c == "-" ? "-" : ""
            position += 1
            if let special = signedSpecialWord(at: position) {
                position += special.length
                return token(.literal(.double(sign == "-" ? -special.value : special.value)), from: start)
            }
        }
        if peek() == "0", let x = peek(1), x == "x" || x == "X", let h = peek(2), h.isHexDigit {
            position += 2
            let digitsStart = position
            while let c = peek(), c.isHexDigit { position += 1 }
            try rejectTrailingWordCharacters(start)
            let magnitude = UInt64(text(digitsStart..<position), radix: 16)
            let value: Int64? =
                switch (magnitude, sign) {
                case (let m?, "-") where m == UInt64(Int64.max) + 1: Int64.min
                case (let m?, "-"): Int64(exactly: m).map { -$0 }
                case (let m?, _): Int64(exactly: m)
                default: nil
                }
            guard let value else { throw invalid(start, length: position - start, "integer literal out of range") }
            return token(.literal(.int(value)), from: start)
        }
        let digitsStart = position
        var isFloat = false
        while let c = peek(), c.isDigit { position += 1 }
        if peek() == ".", let next = peek(1), next.isDigit {
            isFloat = true
            position += 1
            while let c = peek(), c.isDigit { position += 1 }
        }
        if let e = peek(), e == "e" || e == "E" {
            var offset = 1
            if let s = peek(1), s == "+" || s == "-" { offset = 2 }
            if let d = peek(offset), d.isDigit {
                isFloat = true
                position += offset
                while let c = peek(), c.isDigit { position += 1 }
            }
        }
        let numberEnd = position
        let isSingle = peek() == "f" && !(peek(1)?.isWordContinue ?? false)
        if isSingle { position += 1 }
        try rejectTrailingWordCharacters(start)
        let literal = sign + text(digitsStart..<numberEnd)
        if isSingle {
            guard let value = Float(literal) else { throw invalid(start, length: position - start, "invalid number") }
            return token(.literal(.float(value)), from: start)
        }
        if isFloat {
            guard let value = Double(literal) else { throw invalid(start, length: position - start, "invalid number") }
            return token(.literal(.double(value)), from: start)
        }
        guard let value = Int64(literal) else {
            throw invalid(start, length: position - start, "integer literal out of range")
        }
        return token(.literal(.int(value)), from: start)
    }

    /// `3abc` is one bad token, not the number 3 followed by a property.
    private mutating func rejectTrailingWordCharacters(_ start: Int) throws(PredicateFormatError) {
        guard let c = peek(), c.isWordContinue else { return }
        while let c = peek(), c.isWordContinue { position += 1 }
        throw invalid(start, length: position - start, "invalid number '\(text(start..<position))'")
    }

    // MARK: Strings

    mutating func lexString(quote: Unicode.Scalar) throws(PredicateFormatError) -> PredicateToken {
        let start = position
        position += 1
        var value = String.UnicodeScalarView()
        while let c = peek() {
            position += 1
            if c == quote { return token(.literal(.string(String(value))), from: start) }
            if c != "\\" {
                value.append(c)
                continue
            }
            let escapeStart = position - 1
            guard let e = peek() else { break }
            position += 1
            switch e {
            case "\"", "'", "\\", "/": value.append(e)
            case "b": value.append("\u{8}")
            case "f": value.append("\u{C}")
            case "n": value.append("\n")
            case "r": value.append("\r")
            case "t": value.append("\t")
            case "0": value.append("\0")
            case "u": value.append(try unicodeEscape(escapeStart))
            default:
                throw invalid(escapeStart, length: 2, "invalid escape sequence '\\\(e)' in string")
            }
        }
        throw invalid(start, length: position - start, "unterminated string")
    }

    /// The scalar of `\uXXXX`, reading a following `\uXXXX` low surrogate if this is a high one.
    private mutating func unicodeEscape(_ escapeStart: Int) throws(PredicateFormatError) -> Unicode.Scalar {
        func hex4(_ lexer: inout PredicateLexer) -> UInt32? {
            guard lexer.position + 4 <= lexer.scalars.count,
                lexer.scalars[lexer.position..<lexer.position + 4].allSatisfy(\.isHexDigit),
                let value = UInt32(lexer.text(lexer.position..<lexer.position + 4), radix: 16)
            else { return nil }
            lexer.position += 4
            return value
        }
        guard let high = hex4(&self) else {
            throw invalid(escapeStart, length: 2, "invalid escape sequence: '\\u' needs four hex digits")
        }
        if (0xD800...0xDBFF).contains(high), peek() == "\\", peek(1) == "u" {
            position += 2
            if let low = hex4(&self), (0xDC00...0xDFFF).contains(low),
                let scalar = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            {
                return scalar
            }
        }
        guard let scalar = Unicode.Scalar(high) else {
            throw invalid(escapeStart, length: position - escapeStart, "invalid escape sequence: unpaired surrogate")
        }
        return scalar
    }

    // MARK: Dates

    /// `T<seconds>:<nanoseconds>`, or `nil` when the `T` starts an ordinary word.
    mutating func lexTimestamp() throws(PredicateFormatError) -> PredicateToken? {
        let start = position
        var index = position + 1
        func signedInteger() -> Int64? {
            let begin = index
            if index < scalars.count, scalars[index] == "+" || scalars[index] == "-" { index += 1 }
            let digits = index
            while index < scalars.count, scalars[index].isDigit { index += 1 }
            return index > digits ? Int64(text(begin..<index)) : nil
        }
        guard let seconds = signedInteger(), index < scalars.count, scalars[index] == ":" else { return nil }
        index += 1
        guard let nanoseconds = signedInteger() else { return nil }
        position = index
        // `magnitude`, not `abs`: the magnitude of Int64.min does not fit an Int64.
        guard nanoseconds.magnitude < 1_000_000_000, !(seconds < 0 && nanoseconds > 0), !(seconds > 0 && nanoseconds < 0)
        else {
            throw invalid(
                start, length: position - start,
                "invalid date: nanoseconds must be below 1000000000 and have the sign of the seconds"
            )
        }
        let interval = Double(seconds) + Double(nanoseconds) / 1e9
        return token(.literal(.date(Date(timeIntervalSince1970: interval))), from: start)
    }

    /// `YYYY-MM-DD@HH:MM:SS[:nanoseconds]` (or `T` for `@`), in UTC; `nil` when
    /// the digits are an ordinary number.
    mutating func lexDateTime() throws(PredicateFormatError) -> PredicateToken? {
        let start = position
        var index = position
        func number() -> Int? {
            let begin = index
            while index < scalars.count, scalars[index].isDigit { index += 1 }
            return index > begin ? Int(text(begin..<index)) : nil
        }
        func separator(_ allowed: Unicode.Scalar...) -> Bool {
            guard index < scalars.count, allowed.contains(scalars[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(), separator("-"), let month = number(), separator("-"), let day = number() else {
            return nil
        }
        guard separator("@", "T"), let hour = number(), separator(":"), let minute = number(), separator(":"),
            let second = number()
        else {
            throw invalid(start, length: index - start, "invalid date: expected YYYY-MM-DD@HH:MM:SS")
        }
        var nanoseconds = 0
        if index < scalars.count, scalars[index] == ":" {
            index += 1
            guard let value = number() else {
                throw invalid(start, length: index - start, "invalid date: expected nanoseconds after ':'")
            }
            nanoseconds = value
        }
        position = index
        guard (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second),
            nanoseconds < 1_000_000_000
        else { throw invalid(start, length: position - start, "invalid date: a field is out of range") }
        // Realm's `Timestamp` counts seconds in 64 bits: later years do not fit it.
        guard year <= Self.maximumYear else {
            throw invalid(start, length: position - start, "invalid date: the year is past \(Self.maximumYear)")
        }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
        let date = Date(timeIntervalSince1970: seconds + Double(nanoseconds) / 1e9)
        return token(.literal(.date(date)), from: start)
    }

    /// The last year whose dates are 64-bit seconds since 1970 (292,277,026,596).
    static let maximumYear = 292_277_026_595

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar
    /// (Howard Hinnant's `days_from_civil`), computed rather than asked of
    /// `Calendar` so the result cannot depend on the machine's settings.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    // MARK: UUID, ObjectId, data

    mutating func lexUUID(from start: Int) throws(PredicateFormatError) -> PredicateToken {
        let content = try parenthesized(from: start, name: "uuid")
        guard content.unicodeScalars.count == 36, let uuid = UUID(uuidString: content) else {
            throw invalid(start, length: position - start, "invalid UUID literal")
        }
        return token(.literal(.uuid(uuid)), from: start)
    }

    mutating func lexObjectId(from start: Int) throws(PredicateFormatError) -> PredicateToken {
        let content = try parenthesized(from: start, name: "oid")
        guard let objectId = try? ObjectId(string: content) else {
            throw invalid(start, length: position - start, "invalid ObjectId literal (expected 24 hex digits)")
        }
        return token(.literal(.objectId(objectId)), from: start)
    }

    /// The text between `(` and `)`; the current position is at the `(`.
    private mutating func parenthesized(from start: Int, name: String) throws(PredicateFormatError) -> String {
        position += 1
        let contentStart = position
        while let c = peek(), c != ")" { position += 1 }
        guard peek() == ")" else { throw invalid(start, length: position - start, "unterminated \(name)(…) literal") }
        let content = text(contentStart..<position)
        position += 1
        return content
    }

    mutating func lexBase64(from start: Int) throws(PredicateFormatError) -> PredicateToken {
        position += 1
        let contentStart = position
        while let c = peek(), c != "\"" { position += 1 }
        guard peek() == "\"" else { throw invalid(start, length: position - start, "unterminated B64\"…\" literal") }
        let content = text(contentStart..<position)
        position += 1
        guard let data = Data(base64Encoded: content) else {
            throw invalid(start, length: position - start, "invalid base64 data")
        }
        return token(.literal(.data(data)), from: start)
    }
}
