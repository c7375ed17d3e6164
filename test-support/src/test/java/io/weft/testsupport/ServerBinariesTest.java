package io.weft.testsupport;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
class ServerBinariesTest {

  @Test
  void findsAProgramOnThePathAndNothingForAMissingOne() {
    assertNotNull(ServerBinaries.find("sh"));
    assertNull(ServerBinaries.find("weft-no-such-program"));
  }

  @Test
  void missingMessageNamesTheDebianPackage() {
    String message = ServerBinaries.missingMessage("weft-no-such-program", "weft-package");
    assertTrue(message.contains("apt-get install -y weft-package"), message);
  }

  @Test
  void freeLoopbackPortIsAUsablePort() throws Exception {
    int port = ServerBinaries.freeLoopbackPort();
    assertTrue(port > 0 && port < 65536, Integer.toString(port));
  }
}
