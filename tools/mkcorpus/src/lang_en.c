// lang_en.c: English as mkcorpus writes it: common words roughly by falling
// frequency in everyday and office mail, name lists, set phrases, and the
// charsets and time zones English mail comes in.
#include "mkcorpus_internal.h"

// clang-format off
static const char *const words[] = {
    "the", "to", "and", "of", "a", "in", "for", "is", "that", "you", "on", "it", "with", "this",
    "be", "we", "are", "I", "have", "as", "will", "at", "not", "your", "from", "can", "if", "or",
    "by", "please", "an", "was", "our", "all", "has", "would", "but", "they", "more", "about", "so",
    "me", "know", "thanks", "new", "any", "just", "do", "there", "one", "get", "time", "also",
    "need", "should", "which", "what", "like", "been", "some", "when", "out", "up", "them", "my",
    "here", "their", "were", "let", "us", "meeting", "could", "other", "these", "next", "see",
    "week", "make", "work", "how", "only", "team", "may", "today", "now", "than", "it's", "I'm",
    "don't", "project", "after", "use", "day", "back", "send", "good", "first", "well", "into",
    "two", "people", "email", "call", "sure", "information", "update", "attached", "think",
    "before", "because", "tomorrow", "help", "look", "issue", "still", "review", "question",
    "change", "report", "then", "going", "where", "over", "thank", "want", "very", "same",
    "available", "each", "data", "last", "way", "really", "number", "those", "list", "great",
    "following", "below", "hope", "find", "such", "many", "system", "version", "possible", "set",
    "most", "while", "year", "working", "business", "since", "both", "between", "access", "through",
    "schedule", "office", "support", "contact", "Monday", "Friday", "check", "file", "document",
    "plan", "customer", "service", "product", "order", "account", "price", "share", "without",
    "around", "again", "already", "discuss", "agenda", "morning", "afternoon", "three", "note",
    "quick", "problem", "test", "release", "draft", "final", "feedback", "current", "process",
    "company", "client", "confirm", "request", "details", "let's", "include", "needed", "due",
    "end", "soon", "early", "late", "month", "budget", "cost", "invoice", "payment", "contract",
    "deadline", "proposal", "comments", "changes", "minutes", "notes", "slides", "presentation",
    "server", "code", "bug", "fix", "build", "branch", "deploy", "database", "error", "log", "user",
    "users", "password", "link", "page", "site", "app", "phone", "address", "room", "lunch",
    "travel", "flight", "hotel", "trip", "visit", "conference", "talk", "event", "weekend",
    "holiday", "family", "happy", "birthday", "kids", "home", "car", "train", "city", "weather",
    "coffee", "dinner", "book", "music", "photo", "picture", "news", "idea", "reason", "point",
    "part", "case", "group", "place", "world", "school", "student", "university", "research",
    "paper", "results", "analysis", "model", "course", "class", "exam", "program", "option",
    "feature", "design", "performance", "memory", "network", "security", "policy", "legal",
    "finance", "sales", "marketing", "manager", "director", "board", "staff", "interview",
    "candidate", "position", "vacation", "approved", "signed", "shipped", "delivered", "received",
    "sent", "scheduled", "cancelled", "postponed", "updated", "fixed", "tested", "merged",
    "released", "Tuesday", "Wednesday", "Thursday", "January", "March", "April", "June",
    "September", "October", "November",
};
// clang-format on

// clang-format off
static const char *const syllables[] = {
    "ba", "con", "der", "fi", "gal", "ment", "ter", "pro", "ly", "sen", "tion", "ra", "vi", "mo",
    "ster", "pel", "ca", "dis", "ex", "lo", "nor", "ple", "re", "son", "tal", "un", "ver", "wick",
    "ant", "ing", "ton", "hal", "mar", "ous", "port", "quin",
};
// clang-format on

// clang-format off
static const struct mkc_name given[] = {
    {"James", "james"}, {"Mary", "mary"}, {"John", "john"}, {"Patricia", "patricia"},
    {"Robert", "robert"}, {"Jennifer", "jennifer"}, {"Michael", "michael"}, {"Linda", "linda"},
    {"David", "david"}, {"Elizabeth", "elizabeth"}, {"William", "william"}, {"Susan", "susan"},
    {"Richard", "richard"}, {"Jessica", "jessica"}, {"Thomas", "thomas"}, {"Sarah", "sarah"},
    {"Daniel", "daniel"}, {"Karen", "karen"}, {"Matthew", "matthew"}, {"Emily", "emily"},
    {"Andrew", "andrew"}, {"Laura", "laura"}, {"Kevin", "kevin"}, {"Rachel", "rachel"},
    {"Brian", "brian"}, {"Olivia", "olivia"}, {"Chris", "chris"}, {"Megan", "megan"},
    {"Paul", "paul"}, {"Anna", "anna"},
};
// clang-format on

// clang-format off
static const struct mkc_name family[] = {
    {"Smith", "smith"}, {"Johnson", "johnson"}, {"Williams", "williams"}, {"Brown", "brown"},
    {"Jones", "jones"}, {"Miller", "miller"}, {"Davis", "davis"}, {"Wilson", "wilson"},
    {"Anderson", "anderson"}, {"Taylor", "taylor"}, {"Moore", "moore"}, {"Jackson", "jackson"},
    {"Martin", "martin"}, {"Lee", "lee"}, {"Thompson", "thompson"}, {"White", "white"},
    {"Harris", "harris"}, {"Clark", "clark"}, {"Lewis", "lewis"}, {"Walker", "walker"},
    {"Hall", "hall"}, {"Allen", "allen"}, {"Young", "young"}, {"King", "king"},
    {"Wright", "wright"}, {"Scott", "scott"}, {"Green", "green"}, {"Baker", "baker"},
    {"Adams", "adams"}, {"O'Brien", "obrien"},
};
// clang-format on

static const char *const domains[] = {
    "example.com",  "example.org",  "example.net",
    "mail.example", "acme.example", "university.example",
};

static const char *const greetings[] = {"Hi %s,", "Hello %s,", "Dear %s,", "Hey %s,", "%s,"};
static const char *const closings[] = {"Best regards,", "Thanks,", "Cheers,",
                                       "Kind regards,", "Best,",   "Thanks in advance,"};
static const char *const titles[] = {"Project Manager", "Software Engineer",
                                     "Sales Director",  "Research Assistant",
                                     "Office Manager",  "Senior Consultant"};
static const char *const original_labels[] = {"From:", "Sent:", "To:", "Subject:"};

static const unsigned charset_weights[MKC_CS_COUNT] = {[MKC_CS_US_ASCII] = 30,
                                                       [MKC_CS_UTF_8] = 50,
                                                       [MKC_CS_ISO_8859_1] = 12,
                                                       [MKC_CS_WINDOWS_1252] = 8};

static const int tz_minutes[] = {-480, -420, -360, -300, -240, 0, 60, 600};

static const struct mkc_mailing_list lists[] = {
    {"dev", "lists.example.org", "Developer discussion"},
    {"announce", "lists.example.net", "Release announcements"},
    {"users", "lists.example.org", "User questions and help"},
};

const struct mkc_lang_data mkc_lang_en = {
    .code = "en-US",
    .label = "English",
    .spaced = true,
    .words = MKC_COUNTED(words),
    .syllables = MKC_COUNTED(syllables),
    .given = MKC_COUNTED(given),
    .family = MKC_COUNTED(family),
    .domains = MKC_COUNTED(domains),
    .greetings = MKC_COUNTED(greetings),
    .closings = MKC_COUNTED(closings),
    .titles = MKC_COUNTED(titles),
    .company = "Acme Widgets Inc.",
    .attribution = "On %a, %b %d, %Y at %H:%M, %n wrote:",
    .original_message = "-----Original Message-----",
    .original_labels = original_labels,
    .reply_prefix = "RE: ",
    .forward_prefix = "FW: ",
    .sentence_end = ".",
    .question_end = "?",
    .comma = ",",
    .quote_open = "\u201C",
    .quote_close = "\u201D",
    .charset_weights = charset_weights,
    .tz_minutes = MKC_COUNTED(tz_minutes),
    .lists = MKC_COUNTED(lists),
};
