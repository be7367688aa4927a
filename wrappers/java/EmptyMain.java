// EmptyMain.java — a Java program that does nothing: the suite's bare JVM
// start, beside which a Java server's PARENT is read (issue 13, PARENT).
//
//   java -cp PREFIX/share/mqlink/perfserver.jar EmptyMain
public class EmptyMain {
    public static void main(String[] args) {
    }
}
