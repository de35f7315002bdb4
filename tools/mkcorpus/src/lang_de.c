// lang_de.c: German as mkcorpus writes it: common words roughly by falling
// frequency, names with umlauts and their ASCII spellings for addresses, set
// phrases, and the Latin-1 family of charsets German mail still arrives in.
#include "mkcorpus_internal.h"

// clang-format off
static const char *const words[] = {
    "der", "die", "und", "in", "den", "von", "zu", "das", "mit", "sich", "des", "auf", "für", "ist",
    "im", "dem", "nicht", "ein", "Sie", "eine", "als", "auch", "es", "an", "werden", "aus", "er",
    "hat", "dass", "sie", "nach", "wird", "bei", "einer", "um", "am", "sind", "noch", "wie",
    "einem", "über", "einen", "so", "zum", "war", "haben", "nur", "oder", "aber", "vor", "zur",
    "bis", "mehr", "durch", "man", "kann", "wir", "ich", "Ihnen", "bitte", "Dank", "vielen",
    "gerne", "morgen", "heute", "Woche", "Termin", "Projekt", "Besprechung", "Anhang",
    "Rückmeldung", "Frage", "Fragen", "Zeit", "Jahr", "Tag", "Uhr", "schon", "wenn", "dann", "hier",
    "da", "ob", "nächste", "nächsten", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag",
    "können", "müssen", "würde", "könnte", "möchte", "soll", "muss", "gibt", "geht", "machen",
    "sehen", "kommen", "gehen", "sagen", "wissen", "finden", "Ende", "Anfang", "neue", "neuen",
    "gut", "gute", "große", "kleine", "schnell", "wichtig", "Unterlagen", "Rechnung", "Angebot",
    "Vertrag", "Kunde", "Kunden", "Firma", "Team", "Kollegen", "Büro", "Bericht", "Daten", "Datei",
    "Version", "Entwurf", "Ergebnis", "Ergebnisse", "Problem", "Lösung", "Fehler", "Änderung",
    "Änderungen", "Übersicht", "Zusammenfassung", "Präsentation", "Sitzung", "Protokoll", "Frist",
    "Kosten", "Preis", "Budget", "Zahlung", "Bestellung", "Lieferung", "Adresse", "Telefon",
    "Nummer", "Stadt", "Straße", "Zug", "Flug", "Hotel", "Reise", "Urlaub", "Wochenende", "Familie",
    "Kinder", "Haus", "Wetter", "Essen", "Kaffee", "Abend", "Mittag", "Stunde", "Minuten", "Monat",
    "Sommer", "Winter", "Frühling", "Herbst", "Januar", "März", "April", "Juni", "Oktober",
    "Dezember", "Weihnachten", "Geburtstag", "leider", "natürlich", "wahrscheinlich", "eigentlich",
    "allerdings", "außerdem", "trotzdem", "deshalb", "bereits", "inzwischen", "ungefähr", "genau",
    "wirklich", "ganz", "sehr", "viel", "viele", "wenig", "etwas", "nichts", "alles", "alle",
    "jeder", "immer", "nie", "oft", "manchmal", "wieder", "weiter", "zurück", "unter", "zwischen",
    "gegen", "ohne", "seit", "während", "wegen", "dort", "oben", "unten", "zusammen", "gemeinsam",
    "Hilfe", "Unterstützung", "Antwort", "Nachricht", "Mail", "Link", "Seite", "Server", "System",
    "Software", "Zugang", "Passwort", "Benutzer", "Konto", "Sicherheit", "Datenschutz", "Prüfung",
    "Test", "Freigabe", "Abstimmung", "Entscheidung", "Vorschlag", "Idee", "Grund", "Beispiel",
    "Punkt", "Teil", "Fall", "Weg", "Welt", "Leben", "Arbeit", "Schule", "Universität", "Studium",
    "Vorlesung", "Forschung", "Größe", "Gebühr", "Rabatt", "Öffnungszeiten", "ausführlich",
    "übermorgen", "gemäß", "Maßnahme", "schließen", "schön", "fünf", "zwölf", "drei", "zwei",
    "vier", "zehn", "Grüße",
};
// clang-format on

// clang-format off
static const char *const syllables[] = {
    "ge", "ber", "lich", "ung", "keit", "schaft", "ver", "an", "tra", "wel", "dor", "mann", "stein",
    "über", "grö", "fä", "ho", "ken", "bau", "land", "rich", "sel", "zu", "wa", "ner", "hof", "tür",
    "mü", "ach", "bert", "haus", "kor", "lin", "ste",
};
// clang-format on

// clang-format off
static const struct mkc_name given[] = {
    {"Jürgen", "juergen"}, {"Thomas", "thomas"}, {"Michael", "michael"}, {"Andreas", "andreas"},
    {"Stefan", "stefan"}, {"Katrin", "katrin"}, {"Sabine", "sabine"}, {"Petra", "petra"},
    {"Monika", "monika"}, {"Ursula", "ursula"}, {"Jörg", "joerg"}, {"Björn", "bjoern"},
    {"Uwe", "uwe"}, {"Klaus", "klaus"}, {"Wolfgang", "wolfgang"}, {"Birgit", "birgit"},
    {"Heike", "heike"}, {"Anja", "anja"}, {"Jana", "jana"}, {"Lena", "lena"}, {"Lukas", "lukas"},
    {"Jonas", "jonas"}, {"Felix", "felix"}, {"Sophie", "sophie"}, {"Marie", "marie"},
    {"Hannah", "hannah"}, {"Maximilian", "maximilian"}, {"Sören", "soeren"}, {"Dörte", "doerte"},
    {"Günter", "guenter"},
};
// clang-format on

// clang-format off
static const struct mkc_name family[] = {
    {"Müller", "mueller"}, {"Schmidt", "schmidt"}, {"Schneider", "schneider"},
    {"Fischer", "fischer"}, {"Weber", "weber"}, {"Meyer", "meyer"}, {"Wagner", "wagner"},
    {"Becker", "becker"}, {"Schulz", "schulz"}, {"Hoffmann", "hoffmann"}, {"Schäfer", "schaefer"},
    {"Koch", "koch"}, {"Bauer", "bauer"}, {"Richter", "richter"}, {"Klein", "klein"},
    {"Wolf", "wolf"}, {"Schröder", "schroeder"}, {"Neumann", "neumann"}, {"Schwarz", "schwarz"},
    {"Zimmermann", "zimmermann"}, {"Braun", "braun"}, {"Krüger", "krueger"},
    {"Hartmann", "hartmann"}, {"Lange", "lange"}, {"Werner", "werner"}, {"Krause", "krause"},
    {"Meier", "meier"}, {"Weiß", "weiss"}, {"Groß", "gross"}, {"Köhler", "koehler"},
};
// clang-format on

static const char *const domains[] = {"firma.example", "post.example", "gmx.example",
                                      "uni-nord.example", "verein.example"};

static const char *const greetings[] = {"Hallo %s,", "Hi %s,", "Guten Tag %s,", "Moin %s,",
                                        "Servus %s,"};
static const char *const closings[] = {"Viele Grüße", "Beste Grüße", "Mit freundlichen Grüßen",
                                       "Gruß", "Schöne Grüße"};
static const char *const titles[] = {"Projektleiter", "Softwareentwicklerin", "Vertrieb",
                                     "Geschäftsführer", "Sachbearbeiterin"};
static const char *const original_labels[] = {"Von:", "Gesendet:", "An:", "Betreff:"};

static const unsigned charset_weights[MKC_CS_COUNT] = {[MKC_CS_UTF_8] = 55,
                                                       [MKC_CS_ISO_8859_1] = 20,
                                                       [MKC_CS_ISO_8859_15] = 15,
                                                       [MKC_CS_WINDOWS_1252] = 10};

static const int tz_minutes[] = {60, 120};

static const struct mkc_mailing_list lists[] = {
    {"entwickler", "lists.verein.example", "Entwickler-Diskussion"},
    {"stammtisch", "lists.verein.example", "Stammtisch und Termine"},
};

const struct mkc_lang_data mkc_lang_de = {
    .code = "de-DE",
    .label = "German",
    .spaced = true,
    .words = MKC_COUNTED(words),
    .syllables = MKC_COUNTED(syllables),
    .given = MKC_COUNTED(given),
    .family = MKC_COUNTED(family),
    .domains = MKC_COUNTED(domains),
    .greetings = MKC_COUNTED(greetings),
    .closings = MKC_COUNTED(closings),
    .titles = MKC_COUNTED(titles),
    .company = "Muster & Söhne GmbH",
    .attribution = "Am %d.%m.%Y um %H:%M schrieb %n:",
    .original_message = "-----Ursprüngliche Nachricht-----",
    .original_labels = original_labels,
    .reply_prefix = "AW: ",
    .forward_prefix = "WG: ",
    .sentence_end = ".",
    .question_end = "?",
    .comma = ",",
    .quote_open = "„",
    .quote_close = "“",
    .charset_weights = charset_weights,
    .tz_minutes = MKC_COUNTED(tz_minutes),
    .lists = MKC_COUNTED(lists),
};
