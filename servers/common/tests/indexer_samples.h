// indexer_samples.h: three messages the indexer tests deliver and then
// search for: plain text with an Organization header, HTML with an RFC 2047
// subject, and a multipart with a Base64 attachment. Test-only.
#ifndef SRV_INDEXER_SAMPLES_H
#define SRV_INDEXER_SAMPLES_H

static const char plain_msg[] = "From: Alice Arbour <alice@example.org>\r\n"
                                "To: bob@example.net\r\n"
                                "Subject: quarterly zebra report\r\n"
                                "Organization: Umbrellacorp Holdings\r\n"
                                "\r\n"
                                "The pelican sings at dawn.\r\n";

static const char html_msg[] = "From: carol@example.org\r\n"
                               "To: bob@example.net\r\n"
                               "Subject: =?UTF-8?Q?caf=C3=A9_invitation?=\r\n"
                               "Content-Type: text/html; charset=utf-8\r\n"
                               "\r\n"
                               "<html><body><p>Hippopotamus <b>dance</b> &amp; "
                               "tango</p></body></html>\r\n";

static const char attach_msg[] = "From: dave@example.org\r\n"
                                 "To: bob@example.net\r\n"
                                 "Subject: notes\r\n"
                                 "MIME-Version: 1.0\r\n"
                                 "Content-Type: multipart/mixed; boundary=\"b1\"\r\n"
                                 "\r\n"
                                 "--b1\r\n"
                                 "Content-Type: text/plain\r\n"
                                 "\r\n"
                                 "see the attached file\r\n"
                                 "--b1\r\n"
                                 "Content-Type: text/plain; name=\"minutes.txt\"\r\n"
                                 "Content-Disposition: attachment; filename=\"minutes.txt\"\r\n"
                                 "Content-Transfer-Encoding: base64\r\n"
                                 "\r\n"
                                 "d2FscnVzIGFuZCBjYXJwZW50ZXI=\r\n" // "walrus and carpenter"
                                 "--b1--\r\n";

#endif // SRV_INDEXER_SAMPLES_H
