// lang_es.c: Spanish as mkcorpus writes it: common words roughly by falling
// frequency, names with accents and their ASCII spellings, set phrases, and
// the charsets and time zones of Spain and Latin America.
#include "mkcorpus_internal.h"

// clang-format off
static const char *const words[] = {
    "de", "la", "que", "el", "en", "y", "a", "los", "se", "del", "las", "un", "por", "con", "no",
    "una", "su", "para", "es", "al", "lo", "como", "más", "o", "pero", "sus", "le", "ha", "me",
    "si", "sin", "sobre", "este", "ya", "entre", "cuando", "todo", "esta", "ser", "son", "dos",
    "también", "fue", "había", "muy", "hasta", "desde", "está", "mi", "porque", "qué", "han", "yo",
    "hay", "vez", "puede", "todos", "así", "nos", "ni", "parte", "tiene", "él", "uno", "donde",
    "bien", "tiempo", "mismo", "ahora", "cada", "otro", "después", "te", "otros", "aunque", "eso",
    "hace", "otra", "tan", "durante", "siempre", "día", "tanto", "ella", "tres", "sí", "gran",
    "según", "menos", "año", "antes", "gracias", "saludos", "reunión", "proyecto", "semana",
    "mañana", "hoy", "lunes", "martes", "miércoles", "jueves", "viernes", "adjunto", "archivo",
    "documento", "informe", "cliente", "equipo", "empresa", "oficina", "próximo", "próxima",
    "pregunta", "respuesta", "problema", "solución", "error", "cambio", "cambios", "versión",
    "fecha", "hora", "horas", "minutos", "tarde", "noche", "mes", "precio", "costo", "presupuesto",
    "factura", "pago", "pedido", "entrega", "contrato", "propuesta", "oferta", "idea", "ejemplo",
    "punto", "caso", "razón", "resultado", "resultados", "datos", "sistema", "servidor", "acceso",
    "contraseña", "usuario", "seguridad", "enlace", "página", "sitio", "dirección", "teléfono",
    "número", "ciudad", "calle", "tren", "vuelo", "hotel", "viaje", "vacaciones", "fin", "familia",
    "niños", "casa", "café", "comida", "cena", "verano", "invierno", "primavera", "otoño", "enero",
    "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "diciembre", "Navidad",
    "cumpleaños", "nuevo", "nueva", "grande", "pequeño", "pequeña", "bueno", "buena", "importante",
    "último", "última", "primero", "primera", "posible", "disponible", "necesario", "listo",
    "rápido", "juntos", "aquí", "allí", "pronto", "temprano", "nunca", "enviar", "recibir",
    "responder", "confirmar", "revisar", "hablar", "llamar", "tener", "hacer", "poder", "decir",
    "ir", "ver", "dar", "saber", "querer", "llegar", "pasar", "deber", "poner", "quedar", "creer",
    "llevar", "dejar", "seguir", "encontrar", "venir", "pensar", "salir", "volver", "tomar",
    "conocer", "trabajar", "escribir", "entender", "pedir", "terminar", "conseguir", "necesitar",
    "cambiar", "presentar", "crear", "abrir", "explicar", "preguntar", "pagar", "ayudar", "ofrecer",
    "intentar", "compañero", "compañeros", "director", "responsable", "universidad", "curso",
    "examen", "investigación", "conferencia", "presentación", "acuerdo", "ayuda", "apoyo", "paso",
    "pasos", "señor", "señora",
};
// clang-format on

// clang-format off
static const char *const syllables[] = {
    "ción", "ar", "mo", "des", "pa", "ña", "rio", "lla", "ven", "to", "gue", "ma", "ro", "bre",
    "cas", "tí", "llo", "dor", "ez", "qui", "sal", "ra", "pe", "ñe", "ga", "lu", "cia", "mén", "ba",
    "tu", "jo", "ri",
};
// clang-format on

// clang-format off
static const struct mkc_name given[] = {
    {"José", "jose"}, {"María", "maria"}, {"Antonio", "antonio"}, {"Carmen", "carmen"},
    {"Manuel", "manuel"}, {"Lucía", "lucia"}, {"Javier", "javier"}, {"Ana", "ana"},
    {"Francisco", "francisco"}, {"Isabel", "isabel"}, {"David", "david"}, {"Laura", "laura"},
    {"Jesús", "jesus"}, {"Marta", "marta"}, {"Alejandro", "alejandro"}, {"Sofía", "sofia"},
    {"Pablo", "pablo"}, {"Elena", "elena"}, {"Sergio", "sergio"}, {"Cristina", "cristina"},
    {"Álvaro", "alvaro"}, {"Raúl", "raul"}, {"Andrés", "andres"}, {"Begoña", "begona"},
    {"Iñaki", "inaki"}, {"Nuria", "nuria"}, {"Rocío", "rocio"}, {"Óscar", "oscar"},
    {"Inés", "ines"}, {"Ramón", "ramon"},
};
// clang-format on

// clang-format off
static const struct mkc_name family[] = {
    {"García", "garcia"}, {"Rodríguez", "rodriguez"}, {"González", "gonzalez"},
    {"Fernández", "fernandez"}, {"López", "lopez"}, {"Martínez", "martinez"},
    {"Sánchez", "sanchez"}, {"Pérez", "perez"}, {"Gómez", "gomez"}, {"Martín", "martin"},
    {"Jiménez", "jimenez"}, {"Ruiz", "ruiz"}, {"Hernández", "hernandez"}, {"Díaz", "diaz"},
    {"Moreno", "moreno"}, {"Muñoz", "munoz"}, {"Álvarez", "alvarez"}, {"Romero", "romero"},
    {"Alonso", "alonso"}, {"Gutiérrez", "gutierrez"}, {"Navarro", "navarro"}, {"Torres", "torres"},
    {"Domínguez", "dominguez"}, {"Vázquez", "vazquez"}, {"Ramos", "ramos"}, {"Gil", "gil"},
    {"Ramírez", "ramirez"}, {"Serrano", "serrano"}, {"Blanco", "blanco"}, {"Núñez", "nunez"},
};
// clang-format on

static const char *const domains[] = {"empresa.example", "correo.example", "telefonica.example",
                                      "universidad.example"};

static const char *const greetings[] = {"Hola %s,", "Buenos días %s,",
                                        "Buenas tardes %s:", "Estimado %s:", "Hola a todos:"};
static const char *const closings[] = {"Saludos,", "Un saludo,", "Atentamente,", "Gracias,",
                                       "Un abrazo,"};
static const char *const titles[] = {"Jefe de proyecto", "Ingeniera de software",
                                     "Director comercial", "Departamento de compras",
                                     "Coordinadora académica"};
static const char *const original_labels[] = {"De:", "Enviado el:", "Para:", "Asunto:"};

static const unsigned charset_weights[MKC_CS_COUNT] = {[MKC_CS_UTF_8] = 55,
                                                       [MKC_CS_ISO_8859_1] = 20,
                                                       [MKC_CS_ISO_8859_15] = 15,
                                                       [MKC_CS_WINDOWS_1252] = 10};

static const int tz_minutes[] = {60, 120, -180, -300, -360};

static const struct mkc_mailing_list lists[] = {
    {"grupo", "listas.ejemplo.example", "Grupo de trabajo"},
    {"socios", "listas.ejemplo.example", "Lista de socios"},
};

const struct mkc_lang_data mkc_lang_es = {
    .code = "es-ES",
    .label = "Spanish",
    .spaced = true,
    .words = MKC_COUNTED(words),
    .syllables = MKC_COUNTED(syllables),
    .given = MKC_COUNTED(given),
    .family = MKC_COUNTED(family),
    .domains = MKC_COUNTED(domains),
    .greetings = MKC_COUNTED(greetings),
    .closings = MKC_COUNTED(closings),
    .titles = MKC_COUNTED(titles),
    .company = "Ejemplo Soluciones S.L.",
    .attribution = "El %d/%m/%Y a las %H:%M, %n escribió:",
    .original_message = "-----Mensaje original-----",
    .original_labels = original_labels,
    .reply_prefix = "RE: ",
    .forward_prefix = "RV: ",
    .sentence_end = ".",
    .question_open = "¿",
    .question_end = "?",
    .comma = ",",
    .quote_open = "«",
    .quote_close = "»",
    .charset_weights = charset_weights,
    .tz_minutes = MKC_COUNTED(tz_minutes),
    .lists = MKC_COUNTED(lists),
};
